def a():
    return b()


def b():
    return c()


def c():
    return 1


a()
