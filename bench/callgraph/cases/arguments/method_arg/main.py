class Button:
    def __init__(self):
        self.handlers = []

    def on_click(self, handler):
        self.handlers.append(handler)

    def click(self):
        for handler in self.handlers:
            handler()


def beep():
    return "beep"


b = Button()
b.on_click(beep)
b.click()
