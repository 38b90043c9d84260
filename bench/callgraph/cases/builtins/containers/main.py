def run():
    items = []
    items.append(1)
    d = {}
    d.get("k")
    d.setdefault("k", 2)
    s = set()
    s.add(1)
    return len(items)


run()
