import functools


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@timed
def work():
    return 1


def run():
    return work()


run()
