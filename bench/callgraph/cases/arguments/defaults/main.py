def greet():
    return "hi"


def run(f=greet):
    return f()


run()
