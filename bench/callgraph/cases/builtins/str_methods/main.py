def run(words):
    sep = ", "
    text = sep.join(words)
    parts = text.split(",")
    return text.strip().upper()


run(["a", "b"])
