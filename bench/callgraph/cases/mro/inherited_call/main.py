class Base:
    def helper(self):
        return 1

    def run(self):
        return self.helper()


class Child(Base):
    def go(self):
        return self.run()


Child().go()
