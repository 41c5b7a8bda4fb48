import CatFancyKit
import Foundation
import Testing

/// What the screen shows for each state, as text.
@Suite("Rendering")
struct BreedListStateTests {
  static let abyssinian = Breed(
    name: "Abyssinian", knownFor: "a ticked coat and boundless curiosity", popularity: 7,
    photoURL: URL(fileURLWithPath: "/photos/abyssinian.jpg"), infoURL: URL(fileURLWithPath: "/info/abyssinian"),
    credit: "test", license: "CC0", description: "test")
  static let sphynx = Breed(
    name: "Sphynx", knownFor: "having almost no fur at all", popularity: 6,
    photoURL: URL(fileURLWithPath: "/photos/sphynx.jpg"), infoURL: URL(fileURLWithPath: "/info/sphynx"),
    credit: "test", license: "CC0", description: "test")

  @Test func breeds() {
    #expect(
      BreedListState.breeds([Self.abyssinian, Self.sphynx]).lines == [
        "Abyssinian: known for a ticked coat and boundless curiosity",
        "Sphynx: known for having almost no fur at all",
      ])
  }

  @Test func loading() {
    #expect(BreedListState.loading.lines == ["Loading…"])
  }

  @Test func noData() {
    #expect(BreedListState.noData.lines == ["No breeds to show."])
  }

  @Test func badResponse() {
    #expect(BreedListState.badResponse.lines == ["The server sent a response CatFancy could not read."])
  }

  @Test func networkError() {
    #expect(
      BreedListState.networkError("the device is offline").lines
        == ["CatFancy could not load the breeds: the device is offline."])
  }

  @Test("an empty list is no data, not an empty breeds state")
  func emptyListIsNoData() {
    #expect(BreedListState(.success([])) == .noData)
    #expect(BreedListState(.success([Self.abyssinian])) == .breeds([Self.abyssinian]))
  }

  @Test("a Breed encodes with the server's snake_case keys")
  func snakeCaseRoundTrip() throws {
    let data = try JSONEncoder().encode(Self.abyssinian)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["known_for"] as? String == "a ticked coat and boundless curiosity")
    #expect(object["photo_url"] != nil)
    #expect(object["info_url"] != nil)
    #expect(object["knownFor"] == nil)
    #expect(try JSONDecoder().decode(Breed.self, from: data) == Self.abyssinian)
  }
}
