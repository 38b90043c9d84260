class Base:
    def __init__(self):
        self.ready = True


class Child(Base):
    pass


class Grandchild(Child):
    pass


def build():
    Child()
    Grandchild()


build()
