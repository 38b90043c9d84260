class App:
    def __init__(self):
        self.globals = {}

    def add_template_global(self, f, name=None):
        self.globals[name or f.__name__] = f

    def template_global(self, name=None):
        def decorator(f):
            self.add_template_global(f, name=name)
            return f

        return decorator


app = App()


@app.template_global()
def double(x):
    return x * 2


double(2)
