def f1():
    return 1


def f2():
    return 2


def f3():
    return 3


def run():
    t = ((f1, f2), f3)
    (a, b), c = t
    b()
    c()


run()
