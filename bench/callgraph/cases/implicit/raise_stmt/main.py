class Boom(Exception):
    def __init__(self, message=""):
        super().__init__(message)


def fail():
    raise Boom


def fail_call():
    raise Boom("x")


def run():
    try:
        fail()
    except Boom:
        pass
    try:
        fail_call()
    except Boom:
        pass


run()
