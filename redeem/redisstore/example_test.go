package redisstore_test

import (
	"encoding/base64"
	"log"
	"net/http"
	"os"

	"github.com/redis/go-redis/v9"

	"github.com/veilmcp/veil/redeem"
	"github.com/veilmcp/veil/redeem/redisstore"
)

func sessionUser(r *http.Request) (string, error) {
	c, err := r.Cookie("session")
	if err != nil {
		return "", err
	}
	return lookUpSession(c.Value)
}

func lookUpSession(string) (string, error) { return "alice", nil }

// Every instance of the backend shares one Redis and one key. This example
// needs a Redis server, so it is compiled but not run.
func Example() {
	key, err := base64.StdEncoding.DecodeString(os.Getenv("REDEEM_KEY")) // 32 bytes
	if err != nil {
		log.Fatal(err)
	}
	client := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	h, err := redeem.New(sessionUser, &redeem.Options{
		Key:   key,
		Store: redisstore.New(client, &redisstore.Options{Prefix: "myapp:redeem:"}),
	})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/redeem/{id}", h)
	log.Fatal(http.ListenAndServe(":8080", mux))
}
