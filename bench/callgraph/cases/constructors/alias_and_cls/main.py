class Base:
    def __init__(self):
        self.ready = True


class Made(Base):
    @classmethod
    def make(cls):
        return cls()


def build():
    kind = Made
    kind()
    Made.make()


build()
