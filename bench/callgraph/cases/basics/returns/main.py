class Store:
    def save(self):
        return 1


def make():
    return Store()


def run():
    s = make()
    return s.save()


run()
