def on_done(x):
    return x


def other():
    return 0


def run(x, callback=None, fallback=other):
    return callback(x)


run(1, callback=on_done)
