from collections import OrderedDict


class Base:
    def n(self):
        return "n"


class Ordered(Base, OrderedDict):
    def go(self):
        return self.n()


Ordered().go()
