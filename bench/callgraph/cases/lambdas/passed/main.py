def double(x):
    return x * 2


def apply(f, x):
    return f(x)


def run():
    return apply(lambda y: double(y), 2)


run()
