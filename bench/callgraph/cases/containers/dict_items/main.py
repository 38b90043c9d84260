def f1():
    return 1


def f2():
    return 2


def f3():
    return 3


def run():
    d = {"k": f1, "j": f3}
    d["k"] = f2
    d["k"]()
    d["j"]()


run()
