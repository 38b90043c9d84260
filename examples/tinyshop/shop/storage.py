"""Where orders are kept: in memory, or in a JSON file."""

import json
from pathlib import Path

from .models import Order


class OrderStore:
    def __init__(self) -> None:
        self._orders: list[Order] = []

    def save(self, order: Order) -> int:
        self._orders.append(order)
        return len(self._orders) - 1

    def load(self, order_id: int) -> Order:
        return self._orders[order_id]


class JsonOrderStore(OrderStore):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path

    def save(self, order: Order) -> int:
        order_id = super().save(order)
        self.path.write_text(json.dumps({"orders": len(self._orders)}))
        return order_id
