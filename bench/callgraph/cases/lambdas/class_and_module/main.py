key = lambda v: v


class Table:
    sort_key = lambda self: 0

    def ordered(self):
        return self.sort_key()


def run():
    Table().ordered()
    return key(1)


run()
