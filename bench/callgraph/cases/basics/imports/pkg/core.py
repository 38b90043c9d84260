def make():
    return 1


def util():
    return 2
