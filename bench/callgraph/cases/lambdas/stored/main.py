def double(x):
    return x * 2


def run():
    f = lambda x: double(x)
    return f(1)


run()
