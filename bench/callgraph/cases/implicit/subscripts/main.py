class Grid:
    def __getitem__(self, key):
        return 0

    def __setitem__(self, key, value):
        pass

    def __delitem__(self, key):
        pass


def run():
    g = Grid()
    v = g[0]
    g[1] = 2
    del g[1]


run()
