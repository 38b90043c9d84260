def register(fn):
    return fn


class Registry:
    def hook(self, fn):
        return fn


reg = Registry()


@register
def plain():
    return 1


@reg.hook
def hooked():
    return 2


plain()
hooked()
