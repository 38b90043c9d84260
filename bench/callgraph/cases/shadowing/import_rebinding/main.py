from a import f as g
from b import h as g


def run():
    return g()


run()
