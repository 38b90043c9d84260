from m2 import *
from m3 import *


def run():
    return func()


run()
