"""Discount rules. A rule takes an order and returns the discount it grants, in cents."""

from collections.abc import Callable, Iterable

from .models import Order

Rule = Callable[[Order], int]


def percent_off(percent: int) -> Rule:
    def rule(order: Order) -> int:
        return order.subtotal_cents() * percent // 100

    return rule


def bulk_discount(order: Order) -> int:
    """Five cents off every item beyond the tenth."""
    count = sum(item.quantity for item in order.items)
    return max(count - 10, 0) * 5


def apply_discounts(order: Order, rules: Iterable[Rule]) -> Order:
    order.discount_cents = sum(rule(order) for rule in rules)
    return order
