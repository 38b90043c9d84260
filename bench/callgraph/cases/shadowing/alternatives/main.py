import sys

if sys.maxsize > 0:
    from a import f as g
else:
    from b import h as g


def run():
    return g()


run()
