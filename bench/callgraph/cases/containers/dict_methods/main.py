def f4():
    return 4


def f5():
    return 5


def run():
    table = {"x": f4, "y": f5}
    table.get("x")()
    for name, fn in table.items():
        fn()


run()
