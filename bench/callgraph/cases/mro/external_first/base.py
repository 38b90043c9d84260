class Base:
    def m(self):
        return "m"
