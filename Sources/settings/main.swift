import Hummingbird
import ArgumentParser
print("x")
