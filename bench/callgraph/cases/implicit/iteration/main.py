class Countdown:
    def __init__(self):
        self.n = 1

    def __iter__(self):
        return self

    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n


class Letters:
    def __iter__(self):
        yield "a"


def run():
    for x in Countdown():
        pass
    for y in Letters():
        pass


run()
