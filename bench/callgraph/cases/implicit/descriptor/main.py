class Setting:
    def __init__(self, name):
        self.name = name

    def __get__(self, obj, owner=None):
        return 1


class Config:
    debug = Setting("DEBUG")


def run():
    return Config().debug


run()
