def handler():
    return 1


def run(f):
    return f()


run(handler)
