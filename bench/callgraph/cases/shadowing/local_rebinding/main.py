class A:
    def m(self):
        return "A"


class B:
    def m(self):
        return "B"


def run():
    x = A
    x().m()
    x = B
    x().m()


def last():
    y = A
    y = B
    return y().m()


run()
last()
