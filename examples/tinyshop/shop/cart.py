"""The cart a customer fills before checking out."""

from .models import LineItem, Order, Product
from .pricing import apply_discounts, bulk_discount, percent_off
from .storage import OrderStore


class Cart:
    def __init__(self, store: OrderStore) -> None:
        self.store = store
        self.items: list[LineItem] = []

    def add(self, product: Product, quantity: int = 1) -> None:
        self.items.append(LineItem(product, quantity))

    def checkout(self, coupon_percent: int = 0) -> int:
        order = Order(list(self.items))
        rules = [bulk_discount]
        if coupon_percent:
            rules.append(percent_off(coupon_percent))
        apply_discounts(order, rules)
        self.items.clear()
        return self.store.save(order)
