def double(x):
    return x * 2


def make():
    return lambda: double(3)


def run():
    g = make()
    return g()


run()
