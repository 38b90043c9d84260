class Resource:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def use(self):
        return 1


def run():
    with Resource() as r:
        r.use()


run()
