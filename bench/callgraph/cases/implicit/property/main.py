class Account:
    def __init__(self):
        self._balance = 0

    @property
    def balance(self):
        return self._balance

    @balance.setter
    def balance(self, value):
        self._balance = value

    def describe(self):
        return "ok"


def run():
    a = Account()
    total = a.balance
    a.describe()


run()
