from lib import forward, run


def handler():
    return 1


def forwarded():
    return 2


run(handler)
forward(forwarded)
