import functools


def double(x):
    return x * 2


def keep(x):
    return True


def key(x):
    return -x


def run():
    list(map(double, [1, 2]))
    list(filter(keep, [1]))
    sorted([2, 1], key=key)
    p = functools.partial(double, 3)
    return p()


run()
