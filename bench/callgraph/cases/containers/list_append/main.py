def f4():
    return 4


def f5():
    return 5


def run():
    fs = [f4]
    fs.append(f5)
    for f in fs:
        f()


run()
