def double(x):
    return x * 2


def run():
    return (lambda a: (lambda b: double(b)))(1)(2)


run()
