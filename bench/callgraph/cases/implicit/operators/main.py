class Vec:
    def __init__(self, x):
        self.x = x

    def __add__(self, other):
        return Vec(self.x + other.x)

    def __eq__(self, other):
        return self.x == other.x

    def __contains__(self, item):
        return item == self.x

    def __neg__(self):
        return Vec(-self.x)


def run():
    a = Vec(1)
    b = Vec(2)
    c = a + b
    same = a == b
    found = 1 in a
    d = -a


run()
