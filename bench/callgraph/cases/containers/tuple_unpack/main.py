def f1():
    return 1


def f2():
    return 2


def run():
    a, b = f1, f2
    a()
    b()


run()
