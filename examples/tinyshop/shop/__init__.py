"""tinyshop: products, a cart, pricing rules and storage."""

from .cart import Cart
from .models import LineItem, Order, Product

__all__ = ["Cart", "LineItem", "Order", "Product"]
