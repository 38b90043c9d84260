def run(f):
    return f()


def forward(g):
    return run(g)
