def first():
    return 1


def second():
    return 2


def run(*fns):
    for fn in fns:
        fn()


def run_kw(**handlers):
    handlers["done"]()


def done():
    return 3


run(first, second)
run_kw(done=done)
