import pkg.core
from pkg import make


def run():
    make()
    pkg.core.util()


run()
