class Box:
    def __len__(self):
        return 0

    def __str__(self):
        return "box"

    def __repr__(self):
        return "Box()"

    def __bool__(self):
        return True


def run():
    b = Box()
    n = len(b)
    s = str(b)
    r = repr(b)
    t = bool(b)


run()
