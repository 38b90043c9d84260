def f1():
    return 1


def f3():
    return 3


def pair():
    return f1, f3


def run():
    x, y = pair()
    y()


run()
