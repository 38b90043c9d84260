def left():
    return 1


def right():
    return 2


def both(a, b):
    a()
    b()


pair = (left, right)
both(*pair)
both(**{"a": right, "b": left})
