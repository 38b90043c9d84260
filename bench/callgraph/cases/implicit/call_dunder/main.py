class Multiplier:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


def run():
    double = Multiplier(2)
    return double(3)


run()
