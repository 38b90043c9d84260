class Counter:
    def __init__(self):
        self.n = 0

    def inc(self):
        self.n += 1
        return self.report()

    def report(self):
        return self.n


def run():
    c = Counter()
    c.inc()


run()
