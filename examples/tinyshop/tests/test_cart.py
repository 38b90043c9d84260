from shop.cart import Cart
from shop.models import Product
from shop.storage import OrderStore


def test_checkout_applies_coupon():
    store = OrderStore()
    cart = Cart(store)
    cart.add(Product("a", "Apple", 100), 2)
    order_id = cart.checkout(coupon_percent=10)
    assert store.load(order_id).total_cents() == 180


def test_bulk_discount():
    store = OrderStore()
    cart = Cart(store)
    cart.add(Product("b", "Bolt", 10), 12)
    assert store.load(cart.checkout()).total_cents() == 110
