class Plain:
    pass


class Mixin:
    def __init__(self):
        self.mixed = True


class Composite(Plain, Mixin):
    pass


def build():
    return Composite()


build()
