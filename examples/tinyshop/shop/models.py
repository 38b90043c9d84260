"""The shop's data: products, line items and orders."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Product:
    sku: str
    name: str
    price_cents: int


@dataclass
class LineItem:
    product: Product
    quantity: int = 1

    def total_cents(self) -> int:
        return self.product.price_cents * self.quantity


@dataclass
class Order:
    items: list[LineItem] = field(default_factory=list)
    discount_cents: int = 0

    def subtotal_cents(self) -> int:
        return sum(item.total_cents() for item in self.items)

    def total_cents(self) -> int:
        return max(self.subtotal_cents() - self.discount_cents, 0)
