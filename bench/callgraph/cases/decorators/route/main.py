class App:
    def __init__(self):
        self.rules = {}

    def route(self, rule):
        def decorator(f):
            self.rules[rule] = f
            return f

        return decorator


app = App()


@app.route("/")
def index():
    return "index"


@app.route("/about")
def about():
    return "about"


def run():
    return index()


run()
