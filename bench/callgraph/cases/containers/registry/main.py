REGISTRY = []


def register(fn):
    REGISTRY.append(fn)
    return fn


@register
def plugin():
    return 1


def run_all():
    for fn in REGISTRY:
        fn()


run_all()
